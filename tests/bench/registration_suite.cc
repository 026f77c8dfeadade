#include "ntpbench/ntpbench.h"
