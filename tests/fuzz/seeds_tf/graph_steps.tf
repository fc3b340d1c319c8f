#knnj(2),#ceilnb(1),#add()
