/* error.c - sb_strerror(). */
#include "sb/error.h"

const char *sb_strerror(int err)
{
	switch (err) {
	case SB_OK:		return "success";
	case SB_EMISSING:	return "missing value";
	case SB_ESYNTAX:	return "malformed value";
	case SB_ENEGATIVE:	return "negative value";
	case SB_ERANGE:		return "value out of range";
	case SB_EABOVEMAX:	return "value above the site maximum";
	case SB_ENOBUDGET:	return "no budget for an allocation";
	case SB_EUNKNOWNKEY:	return "unknown configuration key";
	case SB_EINVAL:		return "invalid argument";
	case SB_ENOMEM:		return "out of memory";
	case SB_EDUPLICATE:	return "duplicate id";
	case SB_ENOPARENT:	return "parent association not found";
	case SB_ECYCLE:		return "associations form a cycle";
	case SB_ENOTFOUND:	return "association not found";
	case SB_ECORRUPT:	return "corrupt saved state";
	case SB_EVERSION:	return "unsupported saved state version";
	case SB_ENOTBATCH:	return "resumable needs a batch job";
	}
	return "unknown error";
}
