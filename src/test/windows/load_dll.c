/* load_dll.c - the DLLs of src/test/windows/loads_wine.sh, one source built several ways:
 * -DPROVIDE=NAME exports NAME_fn (present.dll, missing.dll, inner.dll); -DNEED=NAME imports
 * NAME_fn from NAME.dll (linked against its import library: the PE import table names
 * NAME.dll) and carries GPU code in .nv_fatb (the bytes of FATBIN, included at build time
 * as load_fatbin.h), so that wheelscan.exe judges and resolves it as an extension. */
#ifdef PROVIDE
#define FN2(n) n##_fn
#define FN(n) FN2(n)
__declspec(dllexport) int FN(PROVIDE)(void)
{
	return 1;
}
#else
#define FN2(n) n##_fn
#define FN(n) FN2(n)
int FN(NEED)(void);
__attribute__((section(".nv_fatb"), used)) static const unsigned char fatbin[] = {
#include "load_fatbin.h"
};
__declspec(dllexport) int ext_fn(void)
{
	return FN(NEED)() + fatbin[0];
}
#endif
