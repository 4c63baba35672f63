/* source_command.c - placeholder; being written. */
typedef int source_command_placeholder;
