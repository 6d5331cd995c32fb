// Made by bench/paddle-int8-calibration.ts (2026-11-27): do not edit by hand. The ranges of the
// paddle detector's neck and head tensors over 16 tuned-slice pages (8 FUNSD forms, 8 SROIE
// receipts) at inputs of 1600 and 960 pixels; int8-graph.ts quantises with them. On those inputs the
// 8-bit detector found 2035 of the float detector's 2104 line boxes (IoU above 0.7) and 2108 in all.
import type { RangeTable } from './int8-graph.js';

/** SHA-256 of the detector model the ranges were observed on; another model is read in float. */
export const DETECTOR_SHA256 = '30a86f5731181461d08021402766601e4302a9b9b9666be8aff402696339cdff';

export const DETECTOR_RANGES: RangeTable = {
  "p2o.Add.151": [
    -8.11505,
    9.31625
  ],
  "p2o.GlobalAveragePool.1": [
    -1.08274,
    1.87696
  ],
  "conv2d_461.tmp_0": [
    -3.87455,
    2.81063
  ],
  "relu_0.tmp_0": [
    0,
    2.81063
  ],
  "conv2d_462.tmp_0": [
    -3.48564,
    3.32855
  ],
  "hardsigmoid_4.tmp_0": [
    0.0339036,
    0.987698
  ],
  "p2o.Mul.111": [
    -4.87419,
    6.90798
  ],
  "p2o.Add.159": [
    -9.98712,
    11.4733
  ],
  "hardswish_75.tmp_0": [
    -0.375,
    11.4733
  ],
  "p2o.Mul.117": [
    -0.406062,
    12.4236
  ],
  "p2o.Add.163": [
    -0.254271,
    12.5754
  ],
  "p2o.Add.167": [
    -22.9971,
    45.1158
  ],
  "hardswish_76.tmp_0": [
    -0.375,
    45.1158
  ],
  "p2o.Mul.123": [
    -0.353842,
    42.5703
  ],
  "p2o.Add.171": [
    -1.20538,
    41.7187
  ],
  "p2o.GlobalAveragePool.3": [
    -1.03463,
    5.18467
  ],
  "conv2d_464.tmp_0": [
    -13.8191,
    9.66489
  ],
  "relu_1.tmp_0": [
    0,
    9.66489
  ],
  "conv2d_465.tmp_0": [
    -11.377,
    8.81348
  ],
  "hardsigmoid_5.tmp_0": [
    0,
    1
  ],
  "p2o.Mul.125": [
    -1.20538,
    25.7896
  ],
  "p2o.Add.179": [
    -11.8184,
    9.37264
  ],
  "hardswish_77.tmp_0": [
    -0.375,
    9.37264
  ],
  "p2o.Mul.131": [
    -0.389925,
    9.74568
  ],
  "p2o.Add.183": [
    -0.127284,
    10.0083
  ],
  "p2o.Add.187": [
    -23.5719,
    20.0314
  ],
  "hardswish_78.tmp_0": [
    -0.375,
    20.0314
  ],
  "p2o.Add.195": [
    -8.33578,
    7.60101
  ],
  "hardswish_79.tmp_0": [
    -0.375,
    7.60101
  ],
  "p2o.Mul.143": [
    -0.426127,
    8.63733
  ],
  "p2o.Add.199": [
    -0.247538,
    8.81592
  ],
  "p2o.Add.203": [
    -19.8872,
    16.5752
  ],
  "hardswish_80.tmp_0": [
    -0.375,
    16.5752
  ],
  "p2o.Add.211": [
    -5.82708,
    3.55695
  ],
  "hardswish_81.tmp_0": [
    -0.375,
    3.48073
  ],
  "conv2d_469.tmp_0": [
    -47.4539,
    38.3116
  ],
  "conv2d_470.tmp_0": [
    -23.4433,
    27.1171
  ],
  "conv2d_471.tmp_0": [
    -15.0198,
    14.542
  ],
  "conv2d_472.tmp_0": [
    -16.785,
    19.2223
  ],
  "conv2d_473.tmp_0": [
    -51.8939,
    47.0659
  ],
  "p2o.GlobalAveragePool.5": [
    -6.43847,
    8.98174
  ],
  "conv2d_474.tmp_0": [
    -8.47413,
    11.5317
  ],
  "relu_2.tmp_0": [
    0,
    11.5317
  ],
  "conv2d_475.tmp_0": [
    -9.38257,
    6.14472
  ],
  "hardsigmoid_6.tmp_0": [
    0,
    1
  ],
  "hardsigmoid_6.tmp_0/plus_one": [
    1,
    2
  ],
  "p2o.Add.229": [
    -65.286,
    52.4817
  ],
  "conv2d_476.tmp_0": [
    -40.6286,
    37.0379
  ],
  "p2o.GlobalAveragePool.7": [
    -2.75678,
    3.4959
  ],
  "conv2d_477.tmp_0": [
    -11.864,
    9.81994
  ],
  "relu_3.tmp_0": [
    0,
    9.81994
  ],
  "conv2d_478.tmp_0": [
    -7.61174,
    5.5901
  ],
  "hardsigmoid_7.tmp_0": [
    0,
    0.993857
  ],
  "hardsigmoid_7.tmp_0/plus_one": [
    1,
    1.99386
  ],
  "p2o.Add.235": [
    -69.0893,
    65.8177
  ],
  "conv2d_479.tmp_0": [
    -56.3999,
    56.6034
  ],
  "p2o.GlobalAveragePool.9": [
    -3.02052,
    3.06609
  ],
  "conv2d_480.tmp_0": [
    -10.1249,
    8.14936
  ],
  "relu_4.tmp_0": [
    0,
    8.14936
  ],
  "conv2d_481.tmp_0": [
    -9.87351,
    8.98228
  ],
  "hardsigmoid_8.tmp_0": [
    0,
    1
  ],
  "hardsigmoid_8.tmp_0/plus_one": [
    1,
    2
  ],
  "p2o.Add.241": [
    -87.2848,
    101.211
  ],
  "conv2d_482.tmp_0": [
    -78.4908,
    77.2277
  ],
  "p2o.GlobalAveragePool.11": [
    -6.92753,
    6.73915
  ],
  "conv2d_483.tmp_0": [
    -21.3228,
    15.2931
  ],
  "relu_5.tmp_0": [
    0,
    15.2931
  ],
  "conv2d_484.tmp_0": [
    -9.16474,
    10.2232
  ],
  "hardsigmoid_9.tmp_0": [
    0,
    1
  ],
  "hardsigmoid_9.tmp_0/plus_one": [
    1,
    2
  ],
  "p2o.Add.247": [
    -151.086,
    138.981
  ],
  "nearest_interp_v2_0.tmp_0": [
    -65.286,
    52.4817
  ],
  "p2o.Add.249": [
    -92.8627,
    74.6477
  ],
  "nearest_interp_v2_1.tmp_0": [
    -92.8627,
    74.6477
  ],
  "p2o.Add.251": [
    -124.95,
    111.378
  ],
  "nearest_interp_v2_2.tmp_0": [
    -124.95,
    111.378
  ],
  "p2o.Add.253": [
    -172.817,
    159.503
  ],
  "conv2d_485.tmp_0": [
    -204.743,
    274.508
  ],
  "p2o.GlobalAveragePool.13": [
    -45.8406,
    80.6961
  ],
  "conv2d_486.tmp_0": [
    -55.832,
    104.464
  ],
  "relu_6.tmp_0": [
    0,
    104.464
  ],
  "conv2d_487.tmp_0": [
    -49.6844,
    42.8552
  ],
  "hardsigmoid_10.tmp_0": [
    0,
    1
  ],
  "hardsigmoid_10.tmp_0/plus_one": [
    1,
    2
  ],
  "p2o.Add.259": [
    -396.261,
    549.016
  ],
  "conv2d_488.tmp_0": [
    -603.887,
    581.174
  ],
  "p2o.GlobalAveragePool.15": [
    -70.6189,
    46.7196
  ],
  "conv2d_489.tmp_0": [
    -34.2551,
    19.4012
  ],
  "relu_7.tmp_0": [
    0,
    19.4012
  ],
  "conv2d_490.tmp_0": [
    -7.79133,
    9.46563
  ],
  "hardsigmoid_11.tmp_0": [
    0,
    1
  ],
  "hardsigmoid_11.tmp_0/plus_one": [
    1,
    2
  ],
  "p2o.Add.265": [
    -1204.28,
    1124.32
  ],
  "conv2d_491.tmp_0": [
    -1243.1,
    1031.39
  ],
  "p2o.GlobalAveragePool.17": [
    -47.537,
    81.971
  ],
  "conv2d_492.tmp_0": [
    -34.9198,
    3.35102
  ],
  "relu_8.tmp_0": [
    0,
    5.47337
  ],
  "conv2d_493.tmp_0": [
    -2.06471,
    1.41585
  ],
  "hardsigmoid_12.tmp_0": [
    0.167995,
    0.780551
  ],
  "hardsigmoid_12.tmp_0/plus_one": [
    1.168,
    1.78055
  ],
  "p2o.Add.271": [
    -1817.87,
    1593.16
  ],
  "conv2d_494.tmp_0": [
    -1157.73,
    1280.9
  ],
  "p2o.GlobalAveragePool.19": [
    -73.9628,
    70.5647
  ],
  "conv2d_495.tmp_0": [
    -65.4134,
    44.9806
  ],
  "relu_9.tmp_0": [
    0,
    44.9806
  ],
  "conv2d_496.tmp_0": [
    -14.6987,
    20.7738
  ],
  "hardsigmoid_13.tmp_0": [
    0,
    1
  ],
  "hardsigmoid_13.tmp_0/plus_one": [
    1,
    2
  ],
  "p2o.Add.277": [
    -1962.42,
    1838.67
  ],
  "nearest_interp_v2_3.tmp_0": [
    -396.261,
    549.016
  ],
  "nearest_interp_v2_4.tmp_0": [
    -1204.28,
    1124.32
  ],
  "nearest_interp_v2_5.tmp_0": [
    -1817.87,
    1593.16
  ],
  "p2o.Concat.1": [
    -2161.2,
    2011.47
  ],
  "batch_norm_0.tmp_3": [
    -2.55483,
    2.62362
  ],
  "batch_norm_0.tmp_4": [
    0,
    2.62362
  ],
  "batch_norm_1.tmp_3": [
    -15.5658,
    19.9612
  ],
  "batch_norm_1.tmp_4": [
    0,
    19.9612
  ],
  "p2o.Add.281": [
    -143.401,
    92.2508
  ]
};
