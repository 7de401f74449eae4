// devfn.cu - device functions and data only: no kernel in this translation unit.
__device__ int devfn_table[4] = {1, 2, 3, 4};

__device__ __noinline__ int devfn_twice(int x) { return 2 * x + devfn_table[x & 3]; }
