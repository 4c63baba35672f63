/* source.c - placeholder; being written. */
typedef int source_placeholder;
