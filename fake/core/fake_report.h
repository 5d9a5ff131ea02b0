/* SPDX-License-Identifier: MIT */
/*
 * The report at exit (fake_report.c).
 */
#ifndef FAKE_REPORT_H
#define FAKE_REPORT_H

#include "fake_core.h"

/* Reads GPUSHIM_FAKE_REPORT. */
void fake_report_configure(void);

#endif
