#include "microhttpd_shim.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

struct MHD_Daemon *mhd_shim_start(const struct mhd_shim_options *options) {
    struct sockaddr_storage address;
    memset(&address, 0, sizeof address);
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
    struct sockaddr_in *v4 = (struct sockaddr_in *)&address;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&address;
    if (inet_pton(AF_INET, options->host, &v4->sin_addr) == 1) {
        v4->sin_family = AF_INET;
        v4->sin_port = htons(options->port);
    } else if (inet_pton(AF_INET6, options->host, &v6->sin6_addr) == 1) {
        v6->sin6_family = AF_INET6;
        v6->sin6_port = htons(options->port);
        flags |= MHD_USE_IPv6;
    } else {
        return NULL;
    }
    int tls = options->tls_key_pem != NULL && options->tls_cert_pem != NULL;
    if (tls) flags |= MHD_USE_TLS;
    struct MHD_OptionItem items[12];
    size_t count = 0;
    items[count++] = (struct MHD_OptionItem){MHD_OPTION_SOCK_ADDR, 0, &address};
    items[count++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_LIMIT, options->connection_limit, NULL};
    items[count++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_TIMEOUT, options->connection_timeout, NULL};
    items[count++] = (struct MHD_OptionItem){MHD_OPTION_CONNECTION_MEMORY_LIMIT, (intptr_t)options->connection_memory_limit, NULL};
    items[count++] = (struct MHD_OptionItem){MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)options->completed, options->completed_context};
    if (options->per_ip_connection_limit > 0)
        items[count++] = (struct MHD_OptionItem){MHD_OPTION_PER_IP_CONNECTION_LIMIT, options->per_ip_connection_limit, NULL};
    if (options->notify_connection != NULL)
        items[count++] = (struct MHD_OptionItem){MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)options->notify_connection,
                                                 options->notify_connection_context};
    if (tls) {
        items[count++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_KEY, 0, (void *)options->tls_key_pem};
        items[count++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_MEM_CERT, 0, (void *)options->tls_cert_pem};
        if (options->tls_priorities != NULL)
            items[count++] = (struct MHD_OptionItem){MHD_OPTION_HTTPS_PRIORITIES, 0, (void *)options->tls_priorities};
    }
    items[count] = (struct MHD_OptionItem){MHD_OPTION_END, 0, NULL};
    return MHD_start_daemon(flags, options->port, NULL, NULL, options->handler, options->handler_context,
                            MHD_OPTION_ARRAY, items, MHD_OPTION_END);
}

uint16_t mhd_shim_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

int mhd_shim_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

int mhd_shim_client_address(struct MHD_Connection *connection, char *buffer, size_t size) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info == NULL || info->client_addr == NULL || size == 0) return -1;
    const struct sockaddr *peer = info->client_addr;
    const void *raw = peer->sa_family == AF_INET6 ? (const void *)&((const struct sockaddr_in6 *)peer)->sin6_addr
                                                  : (const void *)&((const struct sockaddr_in *)peer)->sin_addr;
    return inet_ntop(peer->sa_family, raw, buffer, (socklen_t)size) == NULL ? -1 : 0;
}
