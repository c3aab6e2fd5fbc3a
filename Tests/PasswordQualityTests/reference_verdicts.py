"""libpwquality's own dictionary verdicts (pwquality_check with dictcheck=1, which opens cracklib's dictionary on
every call), with DictionaryBlocklist's settings: one line in ("password"), one line out ("1" common, "0" not).
Run in a process of its own: cracklib allows one open dictionary per process, and the blocklist keeps its open."""
import ctypes
import sys

library = ctypes.CDLL("libpwquality.so.1")
library.pwquality_default_settings.restype = ctypes.c_void_p
library.pwquality_set_int_value.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int]
library.pwquality_check.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p,
                                    ctypes.POINTER(ctypes.c_void_p)]
settings = library.pwquality_default_settings()
# MIN_LENGTH 6; DIG, UP, LOW, OTH credits, MIN_CLASS, MAX_REPEAT, MAX_CLASS_REPEAT, MAX_SEQUENCE, DIFF_OK,
# GECOS_CHECK, USER_CHECK 0; DICT_CHECK 1.
for setting, value in [(3, 6), (4, 0), (5, 0), (6, 0), (7, 0), (8, 0), (9, 0), (11, 0), (14, 0), (1, 0), (12, 0), (16, 0), (15, 1)]:
    assert library.pwquality_set_int_value(settings, setting, value) == 0
for line in sys.stdin.buffer.read().split(b"\n"):
    if not line:
        continue
    auxiliary = ctypes.c_void_p()
    result = library.pwquality_check(settings, line, None, None, ctypes.byref(auxiliary))
    print("1" if result in (-22, -15) else "0")
