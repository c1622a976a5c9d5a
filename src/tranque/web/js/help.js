// The rules page: both languages are in the page; this shows the one the player reads (the
// choice the table remembers), and switches. Without scripts both stay, one after the other.
import { getLang, setLang } from "./i18n.js";

function show(lang) {
  for (const article of document.querySelectorAll("article[lang]")) article.hidden = article.lang !== lang;
  document.documentElement.lang = lang;
  const h1 = document.querySelector(`article[lang="${lang}"] h1`);
  if (h1) document.title = `${h1.textContent} · tranque`;
}

const select = document.getElementById("help-lang");
select.value = getLang();
select.addEventListener("change", async () => {
  await setLang(select.value);
  show(getLang());
});
show(getLang());
