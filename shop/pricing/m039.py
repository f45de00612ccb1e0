import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_39_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-39-0'
    return [line.qty * factor for line in cart.lines]


def step_39_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-39-1'
    return [line.qty * factor for line in cart.lines]


def step_39_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-39-2'
    return [line.qty * factor for line in cart.lines]


def step_39_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-39-3'
    return [line.qty * factor for line in cart.lines]

