#ifndef LARDER_CCURL_SHIM_H
#define LARDER_CCURL_SHIM_H

#include <curl/curl.h>

// Swift cannot call C variadic functions, so each setopt/getinfo shape gets a typed shim.

static inline CURLcode larder_easy_setopt_long(CURL *handle, CURLoption option, long value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode larder_easy_setopt_off(CURL *handle, CURLoption option, curl_off_t value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode larder_easy_setopt_string(CURL *handle, CURLoption option, const char *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode larder_easy_setopt_pointer(CURL *handle, CURLoption option, void *value) {
    return curl_easy_setopt(handle, option, value);
}

static inline CURLcode larder_easy_setopt_slist(CURL *handle, CURLoption option, struct curl_slist *value) {
    return curl_easy_setopt(handle, option, value);
}

typedef size_t (*larder_data_callback)(char *buffer, size_t size, size_t count, void *userdata);
static inline CURLcode larder_easy_setopt_data_callback(CURL *handle, CURLoption option, larder_data_callback callback) {
    return curl_easy_setopt(handle, option, callback);
}

typedef curl_socket_t (*larder_opensocket_callback)(void *clientp, curlsocktype purpose, struct curl_sockaddr *address);
static inline CURLcode larder_easy_setopt_opensocket(CURL *handle, larder_opensocket_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_OPENSOCKETFUNCTION, callback);
}

typedef int (*larder_closesocket_callback)(void *clientp, curl_socket_t socket);
static inline CURLcode larder_easy_setopt_closesocket(CURL *handle, larder_closesocket_callback callback) {
    return curl_easy_setopt(handle, CURLOPT_CLOSESOCKETFUNCTION, callback);
}

static inline CURLcode larder_easy_getinfo_long(CURL *handle, CURLINFO info, long *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode larder_easy_getinfo_off(CURL *handle, CURLINFO info, curl_off_t *value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLcode larder_easy_getinfo_pointer(CURL *handle, CURLINFO info, void **value) {
    return curl_easy_getinfo(handle, info, value);
}

static inline CURLMcode larder_multi_setopt_long(CURLM *handle, CURLMoption option, long value) {
    return curl_multi_setopt(handle, option, value);
}

static inline CURLMcode larder_multi_setopt_pointer(CURLM *handle, CURLMoption option, void *value) {
    return curl_multi_setopt(handle, option, value);
}

typedef int (*larder_socket_callback)(CURL *easy, curl_socket_t socket, int what, void *userp, void *socketp);
static inline CURLMcode larder_multi_setopt_socketfunction(CURLM *handle, larder_socket_callback callback) {
    return curl_multi_setopt(handle, CURLMOPT_SOCKETFUNCTION, callback);
}

typedef int (*larder_timer_callback)(CURLM *multi, long timeout_ms, void *userp);
static inline CURLMcode larder_multi_setopt_timerfunction(CURLM *handle, larder_timer_callback callback) {
    return curl_multi_setopt(handle, CURLMOPT_TIMERFUNCTION, callback);
}

// Constants that Swift imports poorly (macros with casts).
static const size_t larder_writefunc_pause = CURL_WRITEFUNC_PAUSE;
static const size_t larder_readfunc_pause = CURL_READFUNC_PAUSE;
static const size_t larder_readfunc_abort = CURL_READFUNC_ABORT;
static const curl_socket_t larder_socket_bad = CURL_SOCKET_BAD;
static const curl_socket_t larder_socket_timeout = CURL_SOCKET_TIMEOUT;

#endif
