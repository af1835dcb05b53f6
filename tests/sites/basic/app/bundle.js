document.getElementById("root").textContent = "Loading orders...";
