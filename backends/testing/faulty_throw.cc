// The C++ part of the deliberately faulty "throw" plugins (faulty_backend.c, QSPEC_FAULT_THROW).
//
// qspec_testing_throw throws a std::runtime_error out of the backend's run(). In the plugin
// testing.faulty.throw it passes a noexcept frame first, as it does in a C++ plugin whose C entry
// points are declared noexcept: std::terminate prints "terminate called after throwing an
// instance of 'std::runtime_error'" and aborts, which the harness reports as a CRASH (SIGABRT)
// with that line. Built with QSPEC_THROW_CATCHABLE (testing.faulty.throw_caught) it propagates
// to the harness, which catches it: an ERROR "backend threw an exception".
#include <stdexcept>

namespace {

[[noreturn]] __attribute__((noinline)) void raise_error(const char* what) { throw std::runtime_error(what); }

#ifdef QSPEC_THROW_CATCHABLE
void boundary(const char* what) { raise_error(what); }
#else
void boundary(const char* what) noexcept { raise_error(what); }
#endif

}  // namespace

extern "C" void qspec_testing_throw(const char* what) { boundary(what); }
