# Multivariate, unequal length across cases (equal within a case), text labels.
@problemName TinyVowels
@timeStamps false
@missing false
@univariate false
@dimensions 3
@equalLength false
@classLabel true a b
@data
1,2,3:4,5,6:7,8,9:b
1,2:3,4:5,6:a
1,2,3,4,5:1,2,3,4,5:5,4,3,2,1:a
