// k3.cu - a kernel that calls a device function from devfn.cu (relocatable device code).
extern __device__ int devfn_twice(int x);

extern "C" __global__ void k3_call(int *p) { p[threadIdx.x] = devfn_twice(p[threadIdx.x]); }
