#include <pwquality.h>
#include <crack.h>
#include <packer.h>
