/* http.c - placeholder; being written. */
typedef int http_placeholder;
