// The ymm VNNI GEMM engine for AVX-VNNI (VEX VPDPBUSD, no AVX-512): gemm_vnni.cc's one text, built with -mavxvnni.
#define QSPEC_AVXVNNI 1
#include "gemm_vnni.cc"
