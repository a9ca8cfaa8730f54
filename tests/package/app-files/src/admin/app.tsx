// Offer Slovak next to English in the admin, as the README's install section says.
export default {
  config: {
    locales: ['sk'],
  },
  bootstrap() {},
};
