// One Arm NN network per (layer, shapes, parameters, constant weights): built for CpuRef, loaded
// once into a shared runtime and run on 8-bit NHWC tensors.
#pragma once

#include <armnn/ArmNN.hpp>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace qspec::armnn_adapter {

// A loaded network with 8-bit inputs and one 8-bit output.
struct LoadedNetwork {
  armnn::NetworkId id = 0;
  std::size_t output_bytes = 0;
};

// The network cached under `key`, built by `build` (adding its layers between input 0 and output 0
// of the given tensor infos) on a miss. Throws armnn::Exception or std::runtime_error with Arm NN's
// message where it rejects the network (Optimize, LoadNetwork).
const LoadedNetwork& network(const std::string& key, const armnn::TensorInfo& in, const armnn::TensorInfo& out,
                             const std::function<armnn::IConnectableLayer*(armnn::INetwork&)>& build);

// The same with several inputs: input i feeds the layer's input slot i (Addition, Multiplication).
const LoadedNetwork& network(const std::string& key, const std::vector<armnn::TensorInfo>& ins,
                             const armnn::TensorInfo& out,
                             const std::function<armnn::IConnectableLayer*(armnn::INetwork&)>& build);

// Runs a loaded network on `input` (the bytes of the input tensor) into `output`.
void run(const LoadedNetwork& n, const void* input, void* output);
// Runs a loaded network on its inputs (in binding order) into `output`.
void run(const LoadedNetwork& n, const std::vector<const void*>& inputs, void* output);

// "libarmnn <ARMNN_VERSION>" (the library's own version: 22.0.0 for the 20.08 release).
std::string library_version();

}  // namespace qspec::armnn_adapter
