// The VNNI depthwise kernel for AVX-VNNI (VEX VPDPBUSD, no AVX-512): depthwise_vnni.cc's one text, built with -mavxvnni.
#define QSPEC_AVXVNNI 1
#include "depthwise_vnni.cc"
