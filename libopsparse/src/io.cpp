// placeholder until the I/O reader lands
