# A regression set (as in the Monash TSER archive): read with its targets.
@problemName TinyRegression
@timeStamps false
@missing false
@univariate false
@dimensions 2
@equalLength true
@seriesLength 3
@targetLabel true
@data
1,2,3:4,5,6:0.5
7,8,9:10,11,12:-2.25
