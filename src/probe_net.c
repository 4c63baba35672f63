/* probe_net.c - placeholder; being written. */
typedef int probe_net_placeholder;
