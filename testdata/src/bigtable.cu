// bigtable.cu - one kernel reading a 60 KiB constant table: a container larger than the
// 64 KiB that --no-kernels still decodes, as most of a real library's are.
__constant__ unsigned char bigtable_data[60 * 1024] = {1};
extern "C" __global__ void bigtable_read(unsigned char *p) { p[threadIdx.x] = bigtable_data[threadIdx.x * 1021]; }
__device__ unsigned char bigtable_more[16 * 1024] = {2};
extern "C" __global__ void bigtable_more_read(unsigned char *p) { p[threadIdx.x] = bigtable_more[threadIdx.x * 13]; }
