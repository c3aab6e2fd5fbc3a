/*
 * curl_shim: typed entry points for libcurl's variadic `curl_easy_setopt` and `curl_easy_getinfo`,
 * which Swift cannot call. Each passes its one argument through unchanged.
 */
#ifndef CURL_SHIM_H
#define CURL_SHIM_H

#include <curl/curl.h>

/* The callback CURLOPT_WRITEFUNCTION and CURLOPT_HEADERFUNCTION take. */
typedef size_t (*curl_shim_write_callback)(char *data, size_t size, size_t count, void *context);
/* The callback CURLOPT_READFUNCTION takes: fills `buffer` with up to size * count bytes of an upload. */
typedef size_t (*curl_shim_read_callback)(char *buffer, size_t size, size_t count, void *context);

CURLcode curl_shim_set_long(CURL *handle, CURLoption option, long value);
CURLcode curl_shim_set_offset(CURL *handle, CURLoption option, curl_off_t value);
/* Strings are copied by libcurl before the call returns. */
CURLcode curl_shim_set_string(CURL *handle, CURLoption option, const char *value);
/* Pointers (data, lists) must stay valid until the transfer ends. */
CURLcode curl_shim_set_pointer(CURL *handle, CURLoption option, const void *value);
CURLcode curl_shim_set_write_callback(CURL *handle, CURLoption option, curl_shim_write_callback callback);
CURLcode curl_shim_set_read_callback(CURL *handle, CURLoption option, curl_shim_read_callback callback);

CURLcode curl_shim_response_code(CURL *handle, long *code);
/* The Content-Length the response announced, -1 when it announced none. */
CURLcode curl_shim_content_length(CURL *handle, curl_off_t *length);

#endif
