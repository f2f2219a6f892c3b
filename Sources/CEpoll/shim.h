// epoll and eventfd, which Swift's Glibc module leaves out: the lanes' event loops need them.
#include <sys/epoll.h>
#include <sys/eventfd.h>
