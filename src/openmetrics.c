/* openmetrics.c - placeholder; being written. */
typedef int openmetrics_placeholder;
