import errors from './errors';
import rateLimit from './rate-limit';

export default {
  errors,
  'rate-limit': rateLimit,
};
