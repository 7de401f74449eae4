// probe.cu - wheelscan's probe kernel: proves that a device really executes code.
// out[i] = a * i + b for i < n; the host checks every element after reading it back.
// Kept to integer multiply-add, loads and stores so that its PTX needs no ISA newer than 6.0
// (see kernels/README.md and scripts/gen-probe).
extern "C" __global__ void ws_probe(int *out, int a, int b, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = a * i + b;
}
