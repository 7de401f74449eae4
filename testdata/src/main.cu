// main.cu - host main() for the k_exe fixture; it never runs in tests, it only links the kernels.
#include <cstdio>

extern "C" __global__ void k_main(int *p) { p[0] = 42; }

int main(void)
{
	int *d = nullptr;
	if (cudaMalloc(&d, sizeof(int)) != cudaSuccess) {
		fprintf(stderr, "no device\n");
		return 1;
	}
	k_main<<<1, 1>>>(d);
	cudaFree(d);
	return 0;
}
