import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_79_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-79-0'
    return [line.qty * factor for line in cart.lines]


def step_79_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-79-1'
    return [line.qty * factor for line in cart.lines]


def step_79_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-79-2'
    return [line.qty * factor for line in cart.lines]


def step_79_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-79-3'
    return [line.qty * factor for line in cart.lines]

