/*
 * Call tracing: what the process asked of the driver, as a Perfetto trace.
 *
 * Asked for at load, through the environment (read once, with secure_getenv):
 *   GPUSHIM_TRACE=/path/trace.json   every driver call through gpushim as a
 *                                    Chrome/Perfetto trace-event JSON file
 *                                    (complete "X" events), plus the load stages,
 *                                    written at exit (tmp file + rename)
 *   GPUSHIM_TRACE_GPU=1              with GPUSHIM_TRACE: the GPU time of each
 *                                    launch and copy, from timing events, on
 *                                    one track per stream
 *   GPUSHIM_TRACE_SUMMARY=1          per entry point: calls, failures and host
 *                                    time, printed to stderr at exit
 *   GPUSHIM_TRACE_MAX_EVENTS=N       the most calls (and GPU spans) kept; later
 *                                    ones are counted as dropped (default 262144)
 * With none of them set nothing changes: the table keeps the driver's own
 * pointers, so tracing costs nothing when it is off.
 */
#ifndef GPUSHIM_SYS_TRACE_H
#define GPUSHIM_SYS_TRACE_H

#include "gpushim/driver.h"

#include "driver.h"

/*
 * Called by the loader once, with the table just filled with the driver's
 * pointers, before any other thread can see it, and its load report (the
 * stages' times filled; read again at exit for the trace's load track). When
 * tracing was asked for, keeps those pointers and puts a traced wrapper of
 * each in their place, and returns true; otherwise does nothing to the table.
 */
bool gpu__trace_install(struct gpu__driver *table, const gpu_load_report *report);

#endif
