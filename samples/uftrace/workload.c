/*
 * The program of the uftrace samples (samples/README.md): two threads, each
 * calling one function 40 times. request() sleeps 4 ms in nap() on every
 * fourth call and spins briefly otherwise; compute() spins 4 ms on every
 * fourth call and briefly otherwise. So request's slow calls are blocked
 * time and compute's are CPU time.
 */
#include <pthread.h>
#include <unistd.h>

#define CALLS 40

__attribute__((noinline)) void nap(void)
{
	usleep(4000);
}

__attribute__((noinline)) unsigned long spin(unsigned long n)
{
	volatile unsigned long x = 0;

	for (unsigned long i = 0; i < n; i++)
		x += i * i;
	return x;
}

__attribute__((noinline)) void request(int i)
{
	if (i % 4 == 0)
		nap();
	else
		spin(100000);
}

__attribute__((noinline)) void compute(int i)
{
	spin(i % 4 == 0 ? 8000000 : 100000);
}

static void *requests(void *arg)
{
	for (int i = 0; i < CALLS; i++)
		request(i);
	return arg;
}

static void *computes(void *arg)
{
	for (int i = 0; i < CALLS; i++)
		compute(i);
	return arg;
}

int main(void)
{
	pthread_t a, b;

	pthread_create(&a, NULL, requests, NULL);
	pthread_create(&b, NULL, computes, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	return 0;
}
