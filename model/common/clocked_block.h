// The abstract model interface that lockstep steps: a block's RTL adapter and its C++ model both implement
// it with the same port structs, so the harness never knows which one it drives.
#pragma once

namespace nettwin {

template <class In, class Out>
class ClockedBlock {
 public:
  virtual ~ClockedBlock() = default;
  // Synchronous reset (a few cycles with rst_ni low for the RTL).
  virtual void Reset() = 0;
  // Settles the combinational logic for this cycle's inputs and returns the outputs it drives.
  virtual const Out& Eval(const In& in) = 0;
  // Rising clock edge: registers take the values settled by the last Eval().
  virtual void Tick() = 0;
};

}  // namespace nettwin
