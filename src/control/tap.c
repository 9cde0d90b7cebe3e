/* SPDX-License-Identifier: BSD-3-Clause */
/* TAP creation through /dev/net/tun and a few ioctls. */
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "tap.h"

int tp_tap_create(const char *name, const uint8_t mac[6], uint16_t mtu, int *ifindex)
{
	struct ifreq ifr = {0};
	int fd, sk = -1, err;

	fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
	strncpy(ifr.ifr_name, name, IFNAMSIZ - 1);
	if (ioctl(fd, TUNSETIFF, &ifr) < 0)
		goto fail;
	sk = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (sk < 0)
		goto fail;
	ifr.ifr_hwaddr.sa_family = ARPHRD_ETHER;
	memcpy(ifr.ifr_hwaddr.sa_data, mac, 6);
	if (ioctl(sk, SIOCSIFHWADDR, &ifr) < 0)
		goto fail;
	ifr.ifr_mtu = mtu;
	if (ioctl(sk, SIOCSIFMTU, &ifr) < 0)
		goto fail;
	if (ioctl(sk, SIOCGIFFLAGS, &ifr) < 0)
		goto fail;
	ifr.ifr_flags |= IFF_UP;
	if (ioctl(sk, SIOCSIFFLAGS, &ifr) < 0)
		goto fail;
	if (ioctl(sk, SIOCGIFINDEX, &ifr) < 0)
		goto fail;
	*ifindex = ifr.ifr_ifindex;
	close(sk);
	return fd;
fail:
	err = -errno;
	if (sk >= 0)
		close(sk);
	close(fd);
	return err;
}
