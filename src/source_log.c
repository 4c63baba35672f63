/* source_log.c - placeholder; being written. */
typedef int source_log_placeholder;
