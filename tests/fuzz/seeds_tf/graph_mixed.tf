mul(2),#tug(1e6),#ils(),#step(1),#qt(0.5),#arcmimlq(1)
