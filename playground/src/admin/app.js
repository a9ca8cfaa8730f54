// The admin offers Slovak next to English, so the plugin's sk translations can be seen and tested.
export default {
  config: {
    locales: ['sk'],
  },
  bootstrap() {},
};
