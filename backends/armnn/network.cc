// The Arm NN runtime of the adapter and its cache of loaded CpuRef networks.
#include "network.h"

#include <armnn/Version.hpp>
#include <map>
#include <memory>
#include <stdexcept>

namespace qspec::armnn_adapter {
namespace {

armnn::IRuntime& runtime() {
  static armnn::IRuntimePtr rt = armnn::IRuntime::Create(armnn::IRuntime::CreationOptions());
  return *rt;
}

// A few hundred small networks at most per run: bounded so a long run cannot grow without limit.
constexpr std::size_t kMaxCached = 256;
std::map<std::string, LoadedNetwork>& cache() {
  static std::map<std::string, LoadedNetwork> c;
  return c;
}

}  // namespace

const LoadedNetwork& network(const std::string& key, const armnn::TensorInfo& in, const armnn::TensorInfo& out,
                             const std::function<armnn::IConnectableLayer*(armnn::INetwork&)>& build) {
  return network(key, std::vector<armnn::TensorInfo>{in}, out, build);
}

const LoadedNetwork& network(const std::string& key, const std::vector<armnn::TensorInfo>& ins,
                             const armnn::TensorInfo& out,
                             const std::function<armnn::IConnectableLayer*(armnn::INetwork&)>& build) {
  auto& c = cache();
  if (auto it = c.find(key); it != c.end()) return it->second;
  if (c.size() >= kMaxCached) {
    for (auto& [k, n] : c) runtime().UnloadNetwork(n.id);
    c.clear();
  }
  armnn::INetworkPtr net = armnn::INetwork::Create();
  std::vector<armnn::IConnectableLayer*> inputs;
  for (std::size_t i = 0; i < ins.size(); ++i)
    inputs.push_back(net->AddInputLayer(static_cast<armnn::LayerBindingId>(i)));
  armnn::IConnectableLayer* layer = build(*net);
  armnn::IConnectableLayer* output = net->AddOutputLayer(0);
  for (std::size_t i = 0; i < ins.size(); ++i) {
    inputs[i]->GetOutputSlot(0).Connect(layer->GetInputSlot(static_cast<unsigned>(i)));
    inputs[i]->GetOutputSlot(0).SetTensorInfo(ins[i]);
  }
  layer->GetOutputSlot(0).Connect(output->GetInputSlot(0));
  layer->GetOutputSlot(0).SetTensorInfo(out);
  std::vector<std::string> messages;
  armnn::IOptimizedNetworkPtr opt =
      armnn::Optimize(*net, {armnn::Compute::CpuRef}, runtime().GetDeviceSpec(), armnn::OptimizerOptions(),
                      armnn::Optional<std::vector<std::string>&>(messages));
  if (!opt) {
    std::string why = "Arm NN Optimize failed";
    for (const auto& m : messages) why += ": " + m;
    throw std::runtime_error(why);
  }
  LoadedNetwork n;
  std::string error;
  armnn::INetworkProperties props;
  if (runtime().LoadNetwork(n.id, std::move(opt), error, props) != armnn::Status::Success)
    throw std::runtime_error("Arm NN LoadNetwork failed: " + error);
  n.output_bytes = out.GetNumBytes();
  return c.emplace(key, n).first->second;
}

void run(const LoadedNetwork& n, const void* input, void* output) { run(n, std::vector<const void*>{input}, output); }

void run(const LoadedNetwork& n, const std::vector<const void*>& inputs, void* output) {
  armnn::IRuntime& rt = runtime();
  armnn::InputTensors in;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const auto id = static_cast<armnn::LayerBindingId>(i);
    in.emplace_back(id, armnn::ConstTensor(rt.GetInputTensorInfo(n.id, id), inputs[i]));
  }
  const armnn::OutputTensors out{{0, armnn::Tensor(rt.GetOutputTensorInfo(n.id, 0), output)}};
  if (rt.EnqueueWorkload(n.id, in, out) != armnn::Status::Success)
    throw std::runtime_error("Arm NN EnqueueWorkload failed");
}

std::string library_version() { return std::string("libarmnn ") + ARMNN_VERSION; }

}  // namespace qspec::armnn_adapter
