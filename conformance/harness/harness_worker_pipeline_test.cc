// The worker's frame reader with requests sent ahead (WorkerExecutor's pipeline): frames that
// arrive back to back, in one read or split anywhere, come out whole and in order.
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <thread>
#include <vector>

#include "../../harness/src/worker_frames.h"

using namespace qspec::harness::worker;

namespace {

struct SocketPair {
  int fd[2] = {-1, -1};
  SocketPair() { EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, fd), 0); }
  ~SocketPair() {
    for (int f : fd)
      if (f >= 0) ::close(f);
  }
};

}  // namespace

TEST(harness_worker_pipeline, frames_sent_back_to_back_are_read_whole_and_in_order) {
  SocketPair s;
  // Three frames in one write (the reader's first recv takes them all), the last one larger than
  // the reader's 64 KiB first read.
  const std::vector<std::string> payloads{"first", std::string(3, 'b'), std::string(70000, 'c')};
  std::string bytes;
  const Kind kinds[] = {kRun, kSupports, kRun};
  for (std::size_t i = 0; i < payloads.size(); ++i) bytes += frame(kinds[i], payloads[i]);
  std::thread writer([&] { ASSERT_TRUE(send_all(s.fd[0], bytes)); });
  FrameReader r;
  for (std::size_t i = 0; i < payloads.size(); ++i) {
    const ReceivedFrame f = recv_frame(s.fd[1], r, 1 << 20);
    ASSERT_EQ(f.end, ReceivedFrame::Ok) << "frame " << i;
    EXPECT_EQ(f.header.kind, kinds[i]);
    EXPECT_EQ(f.payload, payloads[i]) << "frame " << i;
  }
  writer.join();
  ::close(s.fd[0]);
  s.fd[0] = -1;
  EXPECT_EQ(recv_frame(s.fd[1], r, 1 << 20).end, ReceivedFrame::Closed);  // nothing more: EOF
}

TEST(harness_worker_pipeline, a_frame_split_across_reads_is_joined) {
  SocketPair s;
  const std::string bytes = frame(kRun, "split payload") + frame(kSupports, "next");
  FrameReader r;
  // The first frame's header in two pieces, then the rest with the next frame's first bytes.
  ASSERT_TRUE(send_all(s.fd[0], bytes.data(), 5));
  std::thread writer([&] {
    ::usleep(20000);
    ASSERT_TRUE(send_all(s.fd[0], bytes.data() + 5, 20));
    ::usleep(20000);
    ASSERT_TRUE(send_all(s.fd[0], bytes.data() + 25, bytes.size() - 25));
  });
  const ReceivedFrame a = recv_frame(s.fd[1], r, 1 << 10);
  ASSERT_EQ(a.end, ReceivedFrame::Ok);
  EXPECT_EQ(a.payload, "split payload");
  const ReceivedFrame b = recv_frame(s.fd[1], r, 1 << 10);
  ASSERT_EQ(b.end, ReceivedFrame::Ok);
  EXPECT_EQ(b.header.kind, kSupports);
  EXPECT_EQ(b.payload, "next");
  writer.join();
}

TEST(harness_worker_pipeline, a_header_announcing_too_much_is_garbage) {
  SocketPair s;
  ASSERT_TRUE(send_all(s.fd[0], frame(kRun, std::string(100, 'x'))));
  FrameReader r;
  EXPECT_EQ(recv_frame(s.fd[1], r, 99).end, ReceivedFrame::Garbage);
}
