/* The C interface between the core's HTTP client (src/util/http_tls.cpp) and the https
 * module, inferlint-https.so (src/https/module.cpp), which the client loads with dlopen the
 * first time an https URL is asked for. C, not C++: the program links libstdc++ in, the
 * module uses the shared one that cpp-httplib needs, and no C++ object crosses between
 * them. Plain data in, and the answer through the caller's `append`. */
#ifndef INFERLINT_HTTPS_ABI_H
#define INFERLINT_HTTPS_ABI_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define INFERLINT_HTTPS_ENTRY "inferlint_https_exchange_v1"

struct inferlint_https_header {
    const char* name;
    const char* value;
};

struct inferlint_https_request {
    const char* host;
    int port;
    const char* target; /* the request target: path and query, percent-encoded */
    const char* method;
    const char* body; /* NULL: none; else body_size bytes of JSON */
    size_t body_size;
    const struct inferlint_https_header* headers;
    size_t header_count;
    const char* proxy_host; /* NULL: no proxy */
    int proxy_port;
    const char* proxy_user; /* NULL: no credentials */
    const char* proxy_password;
    double connect_s;
    double read_s;
    double total_s; /* 0 or below: no total bound */
    size_t max_body_bytes;
    const char* ca_cert; /* NULL: the system's CAs only */
    int insecure;        /* nonzero: no certificate check */
};

/* What went wrong; the message is the caller's to word. */
enum inferlint_https_failure {
    INFERLINT_HTTPS_OK = 0,
    INFERLINT_HTTPS_CONNECT,    /* nothing answers (or the proxy does not) */
    INFERLINT_HTTPS_HANDSHAKE,  /* no TLS there */
    INFERLINT_HTTPS_UNTRUSTED,  /* detail: OpenSSL's reason */
    INFERLINT_HTTPS_WRONG_HOST, /* the certificate names another host */
    INFERLINT_HTTPS_CA_FILE,    /* the --ca-cert file cannot be read as PEM */
    INFERLINT_HTTPS_WRITE,
    INFERLINT_HTTPS_READ,  /* silence past read_s, or the connection closed mid-answer */
    INFERLINT_HTTPS_TOTAL, /* past total_s */
    INFERLINT_HTTPS_TOO_BIG,
    INFERLINT_HTTPS_INTERNAL /* detail: what */
};

enum inferlint_https_field {
    INFERLINT_HTTPS_BODY = 0,
    INFERLINT_HTTPS_CONTENT_TYPE,
    INFERLINT_HTTPS_LOCATION,
    INFERLINT_HTTPS_DETAIL
};

struct inferlint_https_answer {
    int status;
    void* sink;
    void (*append)(void* sink, enum inferlint_https_field field, const char* data, size_t size);
};

typedef enum inferlint_https_failure (*inferlint_https_exchange_fn)(const struct inferlint_https_request* request,
                                                                    struct inferlint_https_answer* answer);

#ifdef __cplusplus
}
#endif

#endif
