/* idle.c - placeholder; being written. */
typedef int idle_placeholder;
