// The zmm VNNI depthwise kernel where the CPU also has AVX512-VBMI: depthwise_vnni512.cc's text, built
// with -mavx512vbmi, whose pair-layout ring rows form each group half with one VPERMT2B.
#define QSPEC_VBMI 1
#include "depthwise_vnni512.cc"
