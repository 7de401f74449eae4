// k2.cu - a second translation unit with two more kernels.
extern "C" __global__ void k2_scale(float *p, float s) { p[threadIdx.x] *= s; }

__global__ void k2_fill(int *p, int v) { p[blockIdx.x * blockDim.x + threadIdx.x] = v; }
