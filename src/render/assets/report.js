/*
 * report.js - the last script of the `report --html` page: the hover
 * readouts. The value under the pointer is read back from the drawn
 * points (pixel columns) through each panel's scale, the data-*
 * attributes render_html_figures.c writes (svg[data-xk] x0 x1 px0 px1
 * xk xl; g[data-yk] y0 y1 py0 py1; polyline[data-k]); the latest values
 * are shown until the pointer moves. Then sets data-js-ready="1" on
 * <html>. It changes nothing else and fetches nothing. Embedded at build
 * time with its CSP hash by scripts/embed_assets.py, which drops this
 * comment and the final newline; the rest is the script byte for byte.
 */
(function(){"use strict";
var B=["B","KiB","MiB","GiB","TiB"],D=["B","kB","MB","GB","TB"];
function sig3(x){return x>=999.5?x.toFixed(0):String(+x.toPrecision(3));}
function bytes(v,dec){var a=Math.abs(v),b=dec?1000:1024,u=0;while(u<4&&a>=999.5){a/=b;u++;}var s=sig3(a);return(v<0&&s!=="0"?"-":"")+s+" "+(dec?D:B)[u];}
function fmt(k,v){if(!isFinite(v))return"n/a";if(k==="t")return new Date(Math.floor(v)*1000).toISOString().replace(/\.\d+Z$/,"Z");if(k==="b"||k==="d")return bytes(v,k==="d");if(k==="c")return Math.round(v).toLocaleString("en-US");return v.toLocaleString("en-US",{maximumSignificantDigits:4});}
function lin(a0,a1,p0,p1,p){return p1===p0?a0:a0+(p-p0)*(a1-a0)/(p1-p0);}
function num(el,k){return parseFloat(el.getAttribute("data-"+k));}
function setup(svg){
var fig=svg.closest("figure"),out=fig&&fig.querySelector(".readout"),cur=svg.querySelector(".cursor");
var x0=num(svg,"x0"),x1=num(svg,"x1"),px0=num(svg,"px0"),px1=num(svg,"px1"),xk=svg.getAttribute("data-xk"),xl=svg.getAttribute("data-xl")||"";
var list=[],by={};
svg.querySelectorAll("polyline[data-k]").forEach(function(pl){var g=pl.closest("[data-yk]"),k=pl.getAttribute("data-k"),s=by[k];if(!g)return;if(!s){s=by[k]={k:k,yk:g.getAttribute("data-yk"),y0:num(g,"y0"),y1:num(g,"y1"),py0:num(g,"py0"),py1:num(g,"py1"),x:[],y:[]};list.push(s);}var a=(pl.getAttribute("points")||"").trim().split(/[\s,]+/);for(var i=0;i+1<a.length;i+=2){s.x.push(+a[i]);s.y.push(+a[i+1]);}});
function at(s,px){var lo=0,hi=s.x.length;while(lo<hi){var m=(lo+hi)>>1;if(s.x[m]<px-0.5)lo=m+1;else hi=m;}var mn=Infinity,mx=-Infinity;for(var j=lo;j<s.x.length&&s.x[j]<=px+0.5;j++){mn=Math.min(mn,s.y[j]);mx=Math.max(mx,s.y[j]);}if(mn>mx)return null;return[lin(s.y0,s.y1,s.py0,s.py1,mx),lin(s.y0,s.y1,s.py0,s.py1,mn)];}
function show(px){px=Math.min(Math.max(px,px0),px1);var parts=[(xl?xl+" ":"")+fmt(xk,lin(x0,x1,px0,px1,px))];list.forEach(function(s){var v=at(s,px);if(!v)return;var a=fmt(s.yk,v[0]),b=fmt(s.yk,v[1]);parts.push(s.k+" "+(a===b?a:a+" \u2013 "+b));});if(out)out.textContent=parts.join("  \u00b7  ");if(cur){cur.setAttribute("x1",px);cur.setAttribute("x2",px);}}
svg.addEventListener("mousemove",function(e){var m=svg.getScreenCTM();if(!m)return;var p=svg.createSVGPoint();p.x=e.clientX;p.y=e.clientY;show(p.matrixTransform(m.inverse()).x);if(cur)cur.style.visibility="visible";});
svg.addEventListener("mouseleave",function(){if(cur)cur.style.visibility="hidden";});
show(px1);}
document.querySelectorAll("svg[data-xk]").forEach(setup);
document.documentElement.setAttribute("data-js-ready","1");
})();
