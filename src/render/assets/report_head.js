/*
 * report_head.js - the first script of the `report --html` page, in
 * <head>: records script errors and CSP violations on <html>
 * (data-js-errors, data-js-error, data-csp-violations, data-csp-blocked)
 * for tests/e2e/report_html.sh. Runs before anything else; reads nothing
 * of the page. Embedded at build time with its CSP hash by
 * scripts/embed_assets.py, which drops this comment and the final
 * newline; the rest is the script byte for byte (one line, as the
 * golden pages have it).
 */
(function(){var d=document.documentElement,n=0,c=0;d.setAttribute("data-js-errors","0");window.addEventListener("error",function(e){n++;d.setAttribute("data-js-errors",String(n));d.setAttribute("data-js-error",String(e.message||(e.target&&e.target.tagName)||"error"));},true);document.addEventListener("securitypolicyviolation",function(e){c++;d.setAttribute("data-csp-violations",String(c));d.setAttribute("data-csp-blocked",String(e.violatedDirective)+" "+String(e.blockedURI));});})();
