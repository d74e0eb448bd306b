// The one exception that crosses layers: bad input, said in one line, exit status 2.
#pragma once

#include <stdexcept>
#include <string>

namespace inferlint {

// Thrown at an I/O boundary (a file loader, an HTTP getter) when the input cannot be
// used. what() is one line naming the file or URL (and line where it applies); the
// CLI prints it as "inferlint: <what>" and exits 2.
class InputError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

}  // namespace inferlint
