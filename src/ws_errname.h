/* ws_errname.h - the symbolic name of an errno value ("EPERM"), as the sandbox reports it. */
#ifndef WS_ERRNAME_H
#define WS_ERRNAME_H

/* "EPERM" for EPERM; "E?" for a value not in the table, never NULL. */
const char *ws_errno_name(int e);

#endif
