#include "curl_shim.h"

CURLcode curl_shim_set_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode curl_shim_set_offset(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode curl_shim_set_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode curl_shim_set_pointer(CURL *handle, CURLoption option, const void *value) {
    return curl_easy_setopt(handle, option, value);
}

CURLcode curl_shim_set_write_callback(CURL *handle, CURLoption option, curl_shim_write_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

CURLcode curl_shim_set_read_callback(CURL *handle, CURLoption option, curl_shim_read_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

CURLcode curl_shim_response_code(CURL *handle, long *code) {
    return curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, code);
}

CURLcode curl_shim_content_length(CURL *handle, curl_off_t *length) {
    return curl_easy_getinfo(handle, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, length);
}
