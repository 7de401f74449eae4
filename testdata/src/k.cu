// k.cu - three kernels for wheelscan fixtures: a C name, a C++ name, a template instance.
extern "C" __global__ void k_plain(int *p) { p[threadIdx.x] += 1; }

__global__ void add(float *out, const float *in, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] += in[i];
}

template <typename T> __global__ void tmpl(T *p) { p[threadIdx.x] *= (T)2; }
template __global__ void tmpl<double>(double *);
