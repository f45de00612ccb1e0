import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_43_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-43-0'
    return [line.qty * factor for line in cart.lines]


def step_43_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-43-1'
    return [line.qty * factor for line in cart.lines]


def step_43_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-43-2'
    return [line.qty * factor for line in cart.lines]


def step_43_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-43-3'
    return [line.qty * factor for line in cart.lines]

