// The ymm VNNI GEMM engine for AVX-VNNI (VEX, no AVX-512): gemm_vnni.cc's text, built with -mavxvnni.
#define QSPEC_AVXVNNI 1
#include "gemm_vnni.cc"
