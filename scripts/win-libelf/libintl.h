/* libintl.h - untranslated messages. */
#define dgettext(d, s) (s)
