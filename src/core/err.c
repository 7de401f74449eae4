/* err.c - struct ws_err, the one error type of every layer (wheelscan.h): set once, by the
 * first layer that fails, with its kind; the kind's name (JSON) and exit status. It needs
 * nothing else, so every file may use it without depending on the model. */
#include <stdarg.h>
#include <stdio.h>

#include "wheelscan.h"

int ws_err_set(struct ws_err *err, enum ws_errcode code, const char *fmt, ...)
{
	if (err && !err->code) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(err->msg, sizeof err->msg, fmt, ap);
		va_end(ap);
		err->code = code;
		err->reported = false;
	}
	return -1;
}

const char *ws_errcode_name(enum ws_errcode code)
{
	switch (code) {
	case WS_E_FORMAT: return "format";
	case WS_E_IO: return "io";
	case WS_E_LIMIT: return "limit";
	case WS_E_INTEGRITY: return "integrity";
	case WS_E_UNSUPPORTED: return "unsupported";
	case WS_E_MEMORY: return "memory";
	}
	return "format";
}

int ws_errcode_status(enum ws_errcode code)
{
	(void)code;
	return 3;
}
