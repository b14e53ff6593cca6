// The error tests' one helper: the message of the exception of type E that fn() throws (a parser's or a
// reader's rejection, compared with the text it must give), or `none` when fn() returns.
#pragma once

#include <string>

namespace nettwin {

template <class E, class Fn>
std::string ErrorMessage(Fn fn, const std::string& none = "") {
  try {
    fn();
  } catch (const E& e) {
    return e.what();
  }
  return none;
}

}  // namespace nettwin
