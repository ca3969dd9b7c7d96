/**
 * Full-page navigation away from the app: the providers' consent screens, the hosted payment page and the
 * billing portal live on other origins. An object, so tests can replace `assign` and see where the app was
 * sending the browser.
 */
export const browserLocation = {
  assign(url: string): void {
    window.location.assign(url);
  },
};
