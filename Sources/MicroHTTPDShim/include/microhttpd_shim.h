/*
 * microhttpd_shim: typed entry points for libmicrohttpd's variadic `MHD_start_daemon`,
 * `MHD_get_connection_info` and `MHD_get_daemon_info`, which Swift cannot call.
 */
#ifndef MICROHTTPD_SHIM_H
#define MICROHTTPD_SHIM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <microhttpd.h>

/* What a daemon is started with. `tls_key_pem`/`tls_cert_pem` both NULL for plain HTTP. */
struct mhd_shim_options {
    const char *host;             /* numeric IPv4 or IPv6 address to bind */
    uint16_t port;                /* 0: any free port */
    const char *tls_key_pem;
    const char *tls_cert_pem;
    const char *tls_priorities;   /* GnuTLS priority string; NULL for libmicrohttpd's default */
    unsigned int connection_limit;
    unsigned int per_ip_connection_limit; /* 0: none */
    unsigned int connection_timeout; /* seconds */
    size_t connection_memory_limit;  /* bytes for a connection's headers and buffers */
    MHD_AccessHandlerCallback handler;
    void *handler_context;
    MHD_RequestCompletedCallback completed;
    void *completed_context;
    MHD_NotifyConnectionCallback notify_connection; /* NULL: none */
    void *notify_connection_context;
};

/* Starts a daemon with its own polling thread (epoll) and suspend/resume; NULL when it failed
 * (an unparsable host, the address in use, a refused key or certificate). */
struct MHD_Daemon *mhd_shim_start(const struct mhd_shim_options *options);

/* The port the daemon listens on; 0 when unknown. */
uint16_t mhd_shim_port(struct MHD_Daemon *daemon);

/* The connection's socket; -1 when unknown. */
int mhd_shim_connection_fd(struct MHD_Connection *connection);

/* The peer's numeric address into `buffer` (NUL-terminated); 0 on success. */
int mhd_shim_client_address(struct MHD_Connection *connection, char *buffer, size_t size);

#endif
