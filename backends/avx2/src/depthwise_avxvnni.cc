// The VNNI depthwise kernel for AVX-VNNI (VEX, no AVX-512): depthwise_vnni.cc's text, built with -mavxvnni.
#define QSPEC_AVXVNNI 1
#include "depthwise_vnni.cc"
